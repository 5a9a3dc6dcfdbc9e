/**
 * What a patient writing in another language is told, in that language, before the English text:
 * the assistant answers in English only, 911 in an emergency, 988 in a mental-health crisis, and
 * the appointment channel (in the deployment's own words, `{channel}`) with an interpreter. Keyed
 * by ISO 639-1 code: the languages most often written to US health systems that the language
 * identifier knows (it has no Haitian Creole, so none is written for it). Translations were written
 * for this table; a deployment overrides the English text with `routing_messages.language`.
 */
export const LANGUAGE_ROUTING_MESSAGES: Readonly<Record<string, string>> = {
  es: 'Solo puedo responder preguntas en inglés. Si es una emergencia, llame al 911 o vaya a la sala de emergencias más cercana. Si está pasando por una crisis de salud mental, llame o envíe un mensaje de texto al 988. Para recibir ayuda en su idioma, pida un intérprete: {channel}.',
  pt: 'Só posso responder a perguntas em inglês. Se for uma emergência, ligue para o 911 ou vá ao pronto-socorro mais próximo. Se estiver passando por uma crise de saúde mental, ligue ou envie uma mensagem de texto para o 988. Para receber ajuda no seu idioma, peça um intérprete: {channel}.',
  fr: "Je ne peux répondre aux questions qu'en anglais. En cas d'urgence, appelez le 911 ou rendez-vous aux urgences les plus proches. En cas de crise de santé mentale, appelez le 988 ou envoyez-lui un texto. Pour obtenir de l'aide dans votre langue, demandez un interprète : {channel}.",
  vi: 'Tôi chỉ có thể trả lời câu hỏi bằng tiếng Anh. Nếu đây là trường hợp khẩn cấp, hãy gọi 911 hoặc đến phòng cấp cứu gần nhất. Nếu bạn đang gặp khủng hoảng về sức khỏe tâm thần, hãy gọi hoặc nhắn tin đến 988. Để được giúp đỡ bằng ngôn ngữ của bạn, hãy yêu cầu thông dịch viên: {channel}.',
  tl: 'Sa Ingles lang ako makakasagot ng mga tanong. Kung ito ay emergency, tumawag sa 911 o pumunta sa pinakamalapit na emergency room. Kung ikaw ay nasa krisis sa kalusugang pangkaisipan, tumawag o mag-text sa 988. Para sa tulong sa iyong wika, humingi ng interpreter: {channel}.',
  zh: '我只能用英语回答问题。如果是紧急情况，请拨打 911 或前往最近的急诊室。如果您正在经历心理健康危机，请拨打或发短信至 988。如需用您的语言获得帮助，请要求口译员：{channel}。',
  ko: '저는 영어로만 질문에 답할 수 있습니다. 응급 상황이면 911에 전화하거나 가장 가까운 응급실로 가십시오. 정신 건강 위기 상황이면 988로 전화하거나 문자를 보내십시오. 귀하의 언어로 도움을 받으려면 통역사를 요청하십시오: {channel}.',
  ar: 'يمكنني الإجابة عن الأسئلة باللغة الإنجليزية فقط. إذا كانت هذه حالة طارئة، فاتصل بالرقم 911 أو توجّه إلى أقرب قسم طوارئ. إذا كنت تمر بأزمة نفسية، فاتصل بالرقم 988 أو أرسل إليه رسالة نصية. للحصول على المساعدة بلغتك، اطلب مترجمًا فوريًا: {channel}.',
  ru: 'Я могу отвечать на вопросы только на английском языке. В экстренной ситуации позвоните 911 или обратитесь в ближайшее отделение неотложной помощи. При кризисе психического здоровья позвоните или отправьте сообщение на номер 988. Чтобы получить помощь на вашем языке, попросите переводчика: {channel}.',
};
